# placement: sources added by the component
