# cluster: sources added by the component
